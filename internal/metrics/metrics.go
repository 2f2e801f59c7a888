// Package metrics holds quizhost's Prometheus collectors: answers and
// their latency, storage commits and answers per commit, Discord REST
// errors and rate limits by route, gateway reconnects, scheduler lag and
// open questions. It is the only package of quizhost that imports the
// Prometheus client library; the rest record through the small methods of
// Metrics (or an interface of their own that Metrics satisfies), and main
// serves Handler on the admin listener.
//
// Every method works on a nil *Metrics and records nothing, so code can
// hold one unconditionally and quizhost runs the same with metrics off.
package metrics

import (
	"context"
	"errors"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one set of quizhost's collectors in its own registry (no
// global state: two in one process do not collide). Safe for concurrent
// use.
type Metrics struct {
	reg              *prometheus.Registry
	answers          prometheus.Counter
	answerLatency    prometheus.Histogram
	commits          prometheus.Counter
	answersPerCommit prometheus.Histogram
	restRequests     *prometheus.CounterVec
	restErrors       *prometheus.CounterVec
	restRateLimited  *prometheus.CounterVec
	reconnects       prometheus.Counter
	schedulerLag     prometheus.Histogram
}

// New returns a Metrics with every collector registered, the Go runtime's
// and the process's included.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		answers: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "quizhost_answers_total",
			Help: "Answers recorded.",
		}),
		answerLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "quizhost_answer_latency_seconds",
			Help: "Time from an answer's interaction arriving to its response being sent (Discord allows 3 s).",
			// Discord's deadline is 3 s: the buckets resolve the range below it.
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2, 3, 5},
		}),
		commits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "quizhost_storage_commits_total",
			Help: "Write transactions committed for answers (each answers-carrying commit is one fsync pair).",
		}),
		answersPerCommit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "quizhost_storage_answers_per_commit",
			Help:    "Answers carried by one group commit.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11), // 1 … 1024
		}),
		restRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quizhost_discord_rest_requests_total",
			Help: "Discord REST requests sent, by route (method and path with IDs and tokens replaced).",
		}, []string{"route"}),
		restErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quizhost_discord_rest_errors_total",
			Help: "Discord REST requests that failed, by route and status: an HTTP status of 400 or more other than 429, or \"transport\" when no response came.",
		}, []string{"route", "status"}),
		restRateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quizhost_discord_rest_rate_limited_total",
			Help: "Discord REST responses with status 429 (rate limited), by route.",
		}, []string{"route"}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "quizhost_gateway_reconnects_total",
			Help: "Times the gateway connection dropped and was connected again.",
		}),
		schedulerLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "quizhost_scheduler_lag_seconds",
			Help:    "How late a scheduled job (a question's close, a daily question) ran after it was due.",
			Buckets: []float64{.001, .01, .1, .5, 1, 5, 15, 60, 300},
		}),
	}
	m.reg.MustRegister(m.answers, m.answerLatency, m.commits, m.answersPerCommit,
		m.restRequests, m.restErrors, m.restRateLimited, m.reconnects, m.schedulerLag,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// AnswerRecorded counts one answer, latency after its interaction arrived.
func (m *Metrics) AnswerRecorded(latency time.Duration) {
	if m == nil {
		return
	}
	m.answers.Inc()
	m.answerLatency.Observe(latency.Seconds())
}

// Commit counts one group commit that carried answers answers.
func (m *Metrics) Commit(answers int) {
	if m == nil {
		return
	}
	m.commits.Inc()
	m.answersPerCommit.Observe(float64(answers))
}

// REST counts one Discord REST request to route (see Route) that ended
// with status, 0 when no response came.
func (m *Metrics) REST(route string, status int) {
	if m == nil {
		return
	}
	m.restRequests.WithLabelValues(route).Inc()
	switch {
	case status == http.StatusTooManyRequests:
		m.restRateLimited.WithLabelValues(route).Inc()
	case status == 0:
		m.restErrors.WithLabelValues(route, "transport").Inc()
	case status >= 400:
		m.restErrors.WithLabelValues(route, strconv.Itoa(status)).Inc()
	}
}

// Reconnect counts one gateway reconnection.
func (m *Metrics) Reconnect() {
	if m == nil {
		return
	}
	m.reconnects.Inc()
}

// SchedulerLag records that a scheduled job ran d after it was due.
func (m *Metrics) SchedulerLag(d time.Duration) {
	if m == nil {
		return
	}
	m.schedulerLag.Observe(max(d, 0).Seconds())
}

// OpenQuestions registers the gauge quizhost_open_questions, read from
// count at each scrape; a scrape at which count fails reports NaN. Call it
// once.
func (m *Metrics) OpenQuestions(count func() (int, error)) {
	if m == nil {
		return
	}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "quizhost_open_questions",
		Help: "Questions open for answers, in every server.",
	}, func() float64 {
		n, err := count()
		if err != nil {
			return math.NaN()
		}
		return float64(n)
	}))
}

// Handler serves the metrics in Prometheus's exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Transport returns a RoundTripper that sends each request through next
// and counts it with REST by its route. A request cancelled by its own
// context (shutdown) is not counted as an error.
func (m *Metrics) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return transport{next: next, m: m}
}

type transport struct {
	next http.RoundTripper
	m    *Metrics
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil && (errors.Is(err, context.Canceled) || req.Context().Err() != nil) {
		return resp, err
	}
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	t.m.REST(req.Method+" "+Route(req.URL.Path), status)
	return resp, err
}

var apiVersion = regexp.MustCompile(`^/api/v\d+`)

// Route is the route of a Discord API path, safe for a label: without the
// /api/vN prefix, every snowflake replaced by {id} and every other
// variable segment (an interaction or webhook token, an emoji, a
// command's name) by {}. The segment after interactions/<id> or
// webhooks/<id> is a token whatever it looks like; elsewhere a static
// segment is lower-case letters, '-', '_' or '@' ("channels", "@original",
// "bulk-delete") and anything else is variable, so a token never reaches
// the metrics.
func Route(path string) string {
	path = apiVersion.ReplaceAllString(path, "")
	parts := strings.Split(path, "/")
	for i, p := range parts {
		switch {
		case p == "":
		case i >= 2 && (parts[i-2] == "interactions" || parts[i-2] == "webhooks") && parts[i-1] == "{id}":
			parts[i] = "{}"
		case isSnowflake(p):
			parts[i] = "{id}"
		case !isStatic(p):
			parts[i] = "{}"
		}
	}
	return strings.Join(parts, "/")
}

func isSnowflake(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return len(s) <= 20
}

func isStatic(s string) bool {
	if len(s) > 32 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' && r != '_' && r != '@' {
			return false
		}
	}
	return true
}
