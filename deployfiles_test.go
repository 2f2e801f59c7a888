package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/joho/godotenv"
	"go.yaml.in/yaml/v3"

	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/storage"
)

// The files a user copies work as shipped: .env.example with only the token
// filled in, and the deployment files (Dockerfile, compose files, the
// systemd unit, the Kubernetes manifest) with it. Each test reads the real
// file.

const exampleToken = "secret-token-123"

// exampleDotenv is .env.example with DISCORD_TOKEN filled in, as the README
// says to make .env.
func exampleDotenv(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(".env.example")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\nDISCORD_TOKEN=\n")); n != 1 {
		t.Fatalf(".env.example has %d empty DISCORD_TOKEN= lines, want 1 for the user to fill in", n)
	}
	return bytes.Replace(data, []byte("\nDISCORD_TOKEN=\n"), []byte("\nDISCORD_TOKEN="+exampleToken+"\n"), 1)
}

// envFile reads an env file as docker run --env-file and compose's env_file
// do: NAME=value per line, # comments and blank lines skipped, the value
// taken as written (an empty value sets the variable to empty). It checks
// that godotenv, which quizhost reads .env with, reads the same.
func envFile(t *testing.T, data []byte) map[string]string {
	t.Helper()
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("env file line %q: want NAME=value", line)
		}
		m[k] = v
	}
	dot, err := godotenv.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(m, dot) {
		t.Errorf("docker reads the env file as %v, godotenv as %v", m, dot)
	}
	return m
}

// overlay is the environment of layers, each later one winning.
func overlay(layers ...map[string]string) map[string]string {
	m := map[string]string{}
	for _, l := range layers {
		maps.Copy(m, l)
	}
	return m
}

// checkStarts reads env as quizhost does at start and checks it is accepted
// and that the database and the automatic backups, resolved from workDir,
// land in wantDB and wantBackups.
func checkStarts(t *testing.T, env map[string]string, workDir, wantDB, wantBackups string) config {
	t.Helper()
	cfg, err := readConfig(envMap(env))
	if err != nil {
		t.Fatalf("readConfig: %v (environment %v)", err, env)
	}
	abs := func(p string) string {
		if path.IsAbs(p) {
			return path.Clean(p)
		}
		return path.Join(workDir, p)
	}
	if got := abs(cfg.dbPath); got != wantDB {
		t.Errorf("database at %s, want %s", got, wantDB)
	}
	if cfg.backupEvery != 24*time.Hour || cfg.backupKeep != 7 {
		t.Errorf("automatic backups every %v keeping %d, want the defaults 24h and 7", cfg.backupEvery, cfg.backupKeep)
	}
	if got := abs(cfg.backupDir); got != wantBackups {
		t.Errorf("automatic backups in %s, want %s", got, wantBackups)
	}
	return cfg
}

// TestEnvExampleStarts follows the README's first steps: cp .env.example
// .env, fill in DISCORD_TOKEN, run quizhost. It starts (here against the
// test server, named by the real environment as Discord's address), puts
// its database in the working directory and automatic backups next to it.
func TestEnvExampleStarts(t *testing.T) {
	srv := discordtest.Start(t, discordtest.Options{Token: exampleToken})
	dotenv := exampleDotenv(t)
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(".env", dotenv, 0o600); err != nil {
		t.Fatal(err)
	}
	real := map[string]string{"DISCORD_API_BASE": srv.URL()}
	getenv, err := envWithDotenv(envMap(real), ".env")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readConfig(getenv); err != nil {
		t.Fatalf("quizhost refuses .env.example with a token: %v", err)
	}
	// DISCORD_TOKEN "" in the real environment: the token comes from .env.
	bot := startBot(t, srv, map[string]string{"DISCORD_TOKEN": "", "DISCORD_API_BASE": srv.URL()})
	bot.log.wait(t, `msg="automatic backups" dir=backups every=24h0m0s keep=7`, 5*time.Second)
	bot.stop(t)
	if fi, err := os.Stat(filepath.Join(dir, "backups")); err != nil || !fi.IsDir() {
		t.Errorf("backups folder next to the database: %v", err)
	}
	db, err := storage.Open(t.Context(), filepath.Join(dir, "quizhost.db"), storage.Options{})
	if err != nil {
		t.Fatalf("the database in the working directory: %v", err)
	}
	db.Close()
}

// dockerfile is what the final stage of the Dockerfile sets: its ENV and
// its WORKDIR.
func dockerfile(t *testing.T) (env map[string]string, workDir string) {
	t.Helper()
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ") // continuation lines
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM": // a new stage
			env, workDir = map[string]string{}, "/"
		case "ENV":
			for _, kv := range fields[1:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("Dockerfile: ENV %q: want NAME=value", kv)
				}
				env[k] = v
			}
		case "WORKDIR":
			workDir = fields[1]
		}
	}
	return env, workDir
}

// TestDockerfileEnvFile: docker run --env-file .env (from .env.example)
// over the image's ENV: the file's empty values replace the image's, and
// quizhost still puts the database and its backups on the /data volume.
func TestDockerfileEnvFile(t *testing.T) {
	image, workDir := dockerfile(t)
	if workDir != "/data" {
		t.Fatalf("Dockerfile's WORKDIR is %s, want /data (the volume)", workDir)
	}
	// docker run -e DISCORD_TOKEN=…
	checkStarts(t, overlay(image, map[string]string{"DISCORD_TOKEN": exampleToken}), workDir, "/data/quizhost.db", "/data/backups")
	env := overlay(image, envFile(t, exampleDotenv(t)))
	checkStarts(t, env, workDir, "/data/quizhost.db", "/data/backups")
}

// composeFile is the part of a compose file quizhost's environment comes
// from.
type composeFile struct {
	Services map[string]struct {
		Build       any               `yaml:"build"`
		EnvFile     string            `yaml:"env_file"`
		Environment map[string]string `yaml:"environment"`
		WorkingDir  string            `yaml:"working_dir"`
		Volumes     []string          `yaml:"volumes"`
	} `yaml:"services"`
}

func readCompose(t *testing.T, name string) composeFile {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(c.Services) == 0 {
		t.Fatalf("%s: no services", name)
	}
	return c
}

// TestComposeFiles: each service of compose.yaml and
// deploy/compose/two-processes.yaml, with a .env made from .env.example,
// starts: environment over env_file over the image's ENV, as compose
// layers them. The database and its backups are on the service's volume.
func TestComposeFiles(t *testing.T) {
	dotenv := envFile(t, exampleDotenv(t))
	tests := []struct {
		file   string
		shards map[string]string // service → its QUIZHOST_SHARDS
	}{
		{"compose.yaml", map[string]string{"quizhost": ""}},
		{filepath.Join("deploy", "compose", "two-processes.yaml"), map[string]string{"quizhost-0": "0-1/4", "quizhost-1": "2-3/4"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c := readCompose(t, tt.file)
			if got := slices.Sorted(maps.Keys(c.Services)); !slices.Equal(got, slices.Sorted(maps.Keys(tt.shards))) {
				t.Fatalf("services %v, want %v", got, slices.Sorted(maps.Keys(tt.shards)))
			}
			for name, s := range c.Services {
				t.Run(name, func(t *testing.T) {
					if s.EnvFile != ".env" {
						t.Errorf("env_file %q, want .env", s.EnvFile)
					}
					image, workDir := map[string]string{}, s.WorkingDir
					if s.Build != nil { // built from the Dockerfile
						image, workDir = dockerfile(t)
					}
					if !slices.ContainsFunc(s.Volumes, func(v string) bool { return strings.HasSuffix(v, ":/data") }) {
						t.Errorf("volumes %v, want one at /data", s.Volumes)
					}
					cfg := checkStarts(t, overlay(image, dotenv, s.Environment), workDir, "/data/quizhost.db", "/data/backups")
					if got := cfg.shards.String(); tt.shards[name] != "" && got != tt.shards[name] {
						t.Errorf("shards %s, want %s", got, tt.shards[name])
					}
				})
			}
		})
	}
}

// TestSystemdUnit: deploy/quizhost.service runs quizhost in its
// WorkingDirectory with .env there (made from .env.example): it starts, and
// the database and the automatic backups are inside ReadWritePaths, the
// only place ProtectSystem=strict lets it write.
func TestSystemdUnit(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("deploy", "quizhost.service"))
	if err != nil {
		t.Fatal(err)
	}
	unit := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(line, "#") {
			unit[k] = append(unit[k], v)
		}
	}
	workDir := unit["WorkingDirectory"][0]
	env := map[string]string{}
	for _, e := range unit["Environment"] {
		k, v, _ := strings.Cut(strings.Trim(e, `"`), "=")
		env[k] = v
	}
	// quizhost reads .env from its working directory.
	dotenv := exampleDotenv(t)
	t.Chdir(t.TempDir())
	if err := os.WriteFile(".env", dotenv, 0o600); err != nil {
		t.Fatal(err)
	}
	getenv, err := envWithDotenv(envMap(env), ".env")
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{}
	for _, v := range envVars() {
		all[v.name] = getenv(v.name)
	}
	cfg := checkStarts(t, all, workDir, path.Join(workDir, "quizhost.db"), path.Join(workDir, "backups"))
	writable := strings.Fields(strings.Join(unit["ReadWritePaths"], " "))
	for _, p := range []string{cfg.dbPath, cfg.backupDir} {
		p = path.Join(workDir, p)
		if !slices.ContainsFunc(writable, func(w string) bool { return p == w || strings.HasPrefix(p, w+"/") }) {
			t.Errorf("%s is outside ReadWritePaths %v: ProtectSystem=strict makes it read-only", p, writable)
		}
	}
}

// k8sDoc is the part of a Kubernetes object quizhost's environment comes
// from.
type k8sDoc struct {
	Kind     string `yaml:"kind"`
	Metadata struct{ Name string }
	Data     map[string]string `yaml:"data"`
	Spec     struct {
		Replicas int `yaml:"replicas"`
		Template struct {
			Spec struct {
				Containers []struct {
					Command    []string `yaml:"command"`
					Args       []string `yaml:"args"`
					WorkingDir string   `yaml:"workingDir"`
					Env        []struct {
						Name      string `yaml:"name"`
						Value     string `yaml:"value"`
						ValueFrom *struct {
							SecretKeyRef *struct{ Name, Key string } `yaml:"secretKeyRef"`
							FieldRef     *struct {
								FieldPath string `yaml:"fieldPath"`
							} `yaml:"fieldRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					EnvFrom []struct {
						ConfigMapRef *struct{ Name string } `yaml:"configMapRef"`
					} `yaml:"envFrom"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestKubernetesManifest: each pod of deploy/kubernetes/statefulset.yaml,
// with the Secret its header says to create, starts: the ConfigMap, the
// container's env and QUIZHOST_SHARDS as its start script computes it (run
// with sh); the pods' ranges cover every shard once; the database and its
// backups are on the pod's volume.
func TestKubernetesManifest(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the manifest's start script")
	}
	f, err := os.Open(filepath.Join("deploy", "kubernetes", "statefulset.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	configMaps := map[string]map[string]string{}
	var set *k8sDoc
	for dec := yaml.NewDecoder(f); ; {
		var d k8sDoc
		if err := dec.Decode(&d); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		switch d.Kind {
		case "ConfigMap":
			configMaps[d.Metadata.Name] = d.Data
		case "StatefulSet":
			set = &d
		}
	}
	if set == nil || len(set.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("no StatefulSet with one container")
	}
	c := set.Spec.Template.Spec.Containers[0]
	secret := map[string]string{"DISCORD_TOKEN": exampleToken, "QUIZHOST_ADMIN_TOKEN": strings.Repeat("0123456789abcdef", 4)}
	if len(c.Args) != 1 || !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || strings.Count(c.Args[0], "exec /quizhost") != 1 {
		t.Fatalf("container command %q %q: want a /bin/sh -c script ending in exec /quizhost", c.Command, c.Args)
	}
	covered := map[int]int{}
	for pod := range set.Spec.Replicas {
		env := map[string]string{}
		for _, from := range c.EnvFrom {
			maps.Copy(env, configMaps[from.ConfigMapRef.Name])
		}
		for _, e := range c.Env {
			switch {
			case e.ValueFrom == nil:
				env[e.Name] = e.Value
			case e.ValueFrom.SecretKeyRef != nil:
				env[e.Name] = secret[e.ValueFrom.SecretKeyRef.Key]
			case e.ValueFrom.FieldRef != nil && strings.Contains(e.ValueFrom.FieldRef.FieldPath, "pod-index"):
				env[e.Name] = strconv.Itoa(pod)
			}
		}
		if env["REPLICAS"] != strconv.Itoa(set.Spec.Replicas) {
			t.Errorf("the ConfigMap's REPLICAS %q, want spec.replicas %d", env["REPLICAS"], set.Spec.Replicas)
		}
		// The start script, with quizhost replaced by printing what it
		// would get.
		script := strings.Replace(c.Args[0], "exec /quizhost", `printf '%s' "$QUIZHOST_SHARDS"`, 1)
		cmd := exec.Command(sh, "-c", script)
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pod %d: start script: %v", pod, err)
		}
		_, shards, _ := strings.Cut(string(out), "\n") // after its "pod k runs shards" line
		env["QUIZHOST_SHARDS"] = shards
		cfg := checkStarts(t, env, c.WorkingDir, "/data/quizhost.db", "/data/backups")
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/data" {
			t.Errorf("volume mounts %+v, want the pod's volume at /data", c.VolumeMounts)
		}
		for s := cfg.shards.First; s <= cfg.shards.Last; s++ {
			covered[s]++
		}
		if cfg.shards.Count != 4 {
			t.Errorf("pod %d runs %s, want shards of 4", pod, cfg.shards)
		}
	}
	if !maps.Equal(covered, map[int]int{0: 1, 1: 1, 2: 1, 3: 1}) {
		t.Errorf("shards run by the pods: %v, want each of 0-3 once", covered)
	}
}

// TestReadmeFirstCommands: the README's first code block gives a new
// machine's commands (the sandbox, the bot, the tests), each a command
// quizhost has; its Command line section shows each command's usage as
// help does.
func TestReadmeFirstCommands(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(readme), "```sh\n")
	block, _, _ = strings.Cut(block, "```\n")
	names := map[string]bool{}
	for _, c := range commands() {
		names[c.name] = true
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		fields := strings.Fields(cmd)
		got = append(got, strings.Join(fields, " "))
		switch {
		case len(fields) >= 3 && fields[0] == "go" && fields[1] == "run" && fields[2] == ".":
			if len(fields) > 3 && !names[fields[3]] {
				t.Errorf("README's first block runs %q: quizhost has no command %q", line, fields[3])
			}
		case strings.Join(fields, " ") == "go test ./...":
		default:
			t.Errorf("README's first block has %q, want go run . [COMMAND] or go test ./...", line)
		}
	}
	if want := []string{"go run . sandbox", "go run .", "go test ./..."}; !slices.Equal(got, want) {
		t.Errorf("README's first block runs %q, want %q", got, want)
	}

	_, section, _ := strings.Cut(string(readme), "\n## Command line\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, c := range commands() {
		if usage := strings.TrimSpace("quizhost " + c.name + " " + c.args); !strings.Contains(section, "\n"+usage+" ") && !strings.Contains(section, "\n"+usage+"\n") {
			t.Errorf("README's Command line section lacks %q", usage)
		}
	}
}

// TestDocsAgree: the systemd unit in README is deploy/quizhost.service,
// and README's Configuration and .env.example name every variable quizhost
// reads.
func TestDocsAgree(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	unit, err := os.ReadFile(filepath.Join("deploy", "quizhost.service"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "  ```ini\n")
	block, _, ok2 := strings.Cut(block, "  ```\n")
	if !ok || !ok2 {
		t.Fatal("README has no indented ```ini block")
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "  "))
	}
	if got := strings.Join(lines, "\n") + "\n"; got != string(unit) {
		t.Errorf("README's unit differs from deploy/quizhost.service:\n%s\nwant:\n%s", got, unit)
	}
	example, err := os.ReadFile(".env.example")
	if err != nil {
		t.Fatal(err)
	}
	_, config, _ := strings.Cut(string(readme), "## Configuration\n")
	config, _, _ = strings.Cut(config, "\n## ")
	for _, v := range envVars() {
		if !strings.Contains(config, "| `"+v.name+"` |") {
			t.Errorf("README's Configuration table lacks %s", v.name)
		}
		if !strings.Contains(string(example), "\n"+v.name+"=") {
			t.Errorf(".env.example lacks %s", v.name)
		}
	}
}
