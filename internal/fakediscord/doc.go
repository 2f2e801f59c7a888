// Package fakediscord is a Discord-compatible server: the real discordgo
// v0.29.0 client talks to it over HTTP (REST, API v9) and a websocket
// gateway on 127.0.0.1, and its owner drives members' interactions and
// inspects what the bot sent. The bot's end-to-end tests use it through
// internal/discordtest (Start with cleanup, Wait helpers that fail the
// test, the goroutine-leak check); `quizhost sandbox` and the benchmark
// programs under bench/ run it directly. It does not import testing,
// net/http/httptest or goleak, so that the programs that run it, the
// production binary among them, do not link them.
//
// # Wiring a bot to it
//
// discordgo builds its REST URLs from package-level strings fixed at init, so
// a session is redirected through its HTTP client instead:
//
//	srv, _ := fakediscord.Listen("127.0.0.1:0", fakediscord.Options{})
//	dg, _ := discordgo.New("Bot test-token")
//	dg.Client = &http.Client{Timeout: 5 * time.Second, Transport: fakediscord.Transport(srv.URL())}
//	dg.Identify.Intents = discordgo.IntentsGuilds
//	// register handlers, then dg.Open(); close dg before srv.
//
// [Transport] rewrites requests for discord.com, discordapp.com, discordapp.net
// and their subdomains to the server; the bot has its own equivalent driven by
// DISCORD_API_BASE (which is what [Server.URL] returns). The gateway does not
// go through the HTTP client: GET /api/v9/gateway answers with the server's own
// ws:// URL.
//
// Close the discordgo session before the server: when the server goes away
// first, discordgo reconnects forever in the background (logging at LogError).
//
// To wait for something the bot does, call [Server.Wait] with a condition
// over the server's state, or [Pending.Response]; [Server.Changed] signals
// each change of state.
//
// # What it serves
//
// REST (every route under /api/v9 and /api/v10; every reply has a JSON
// content type, errors look like Discord's {"message","code"[,"errors"]}):
//
//	GET    /gateway, /gateway/bot                         shards and session_start_limit (see Sharding)
//	GET    /users/@me, /users/{user}                      10013 when unknown
//	GET    /guilds/{guild}, /guilds/{guild}/channels
//	GET    /guilds/{guild}/members/{user}                 10013 when unknown
//	GET/PUT/POST        /applications/{app}[/guilds/{guild}]/commands
//	GET/PATCH/DELETE    /applications/{app}[/guilds/{guild}]/commands/{id}
//	POST   /interactions/{id}/{token}/callback            204; 40060 twice; 10062 unknown or late
//	POST   /webhooks/{app}/{token}[?wait=true]            follow-ups (JSON or multipart)
//	GET/PATCH/DELETE    /webhooks/{app}/{token}/messages/{@original|id}
//	GET/POST            /channels/{channel}/messages      (JSON or multipart)
//	GET/PATCH/DELETE    /channels/{channel}/messages/{id}
//	GET    /channels/{channel}
//	POST   /users/@me/channels                            a DM channel; 50033 for an unknown user
//	POST   /channels/{dm}/messages                        recorded ([Server.DMs]); 403 50007 after [Server.CloseDMs]
//
// Files added with [Server.AddFile], and files the bot uploads, are served
// without authentication at /files/<name> ([Server.File] reads them). Anything
// else answers 404 {"message":"404: Not Found","code":0}. Every REST request
// is recorded ([Server.Requests]); requests without "Authorization: Bot
// <token>" (with [Options.Token], that token) answer 401 and are listed by
// [Server.AuthViolations]. With [Options.OwnHostOnly], a request of any kind
// whose Host header is not the server's own address answers 421 and is not
// recorded.
//
// The server's time is [Options.Now] (default time.Now): snowflakes, message
// timestamps and the callback deadline follow it, so a bot run on a clock
// that jumps forward sees Discord's time jump with it.
//
// Payloads Discord would reject are rejected the same way (400, code 50035
// "Invalid Form Body" with an errors tree, or 50006 for an empty message) and
// listed by [Server.Violations]: message content, embed and component limits,
// command names and option counts, modal shapes (title, rows, text inputs
// and their lengths), a second callback (40060), a callback for
// an unknown interaction or after the 3 s deadline (10062), a callback type
// that does not fit the interaction, a follow-up before the initial response,
// unknown routes and missing authorization. Lookups of unknown users, members,
// channels or messages answer 404 but are not violations: a bot may
// legitimately meet them.
//
// # Gateway
//
// The websocket (text frames only) sends HELLO, answers IDENTIFY with READY
// and one GUILD_CREATE per guild, answers every heartbeat with op 11, and
// numbers dispatches with increasing sequence numbers per session.
// RESUME is supported: when the session id matches and the sequence is one
// the server still holds, it answers RESUMED (carrying the client's own
// sequence, so the client's counter never goes back) and then replays every
// dispatch after that sequence, followed by anything queued while no client
// was connected. An unknown session, or any RESUME when
// [Options.DisableResume] is set, gets op 9 with d:false and the client
// identifies again. Events dispatched while no session is ready are queued and
// delivered once one is.
//
// # Sharding
//
// With [Options.Shards] N > 1 the gateway serves N shards at once, one
// session each, as Discord does: GET /gateway/bot answers "shards": N and a
// session_start_limit (total, remaining — one used per IDENTIFY —,
// reset_after, max_concurrency from [Options.MaxConcurrency]). An IDENTIFY
// must carry "shard":[id, N]: without one, or with fewer shards, the
// connection is closed with 4011 "Sharding required."; an id out of range,
// or another count, with 4010 "Invalid shard." (Discord accepts more shards
// than it recommends; this server serves exactly N). IDENTIFYs of one
// bucket (id % max_concurrency) less than [Options.IdentifyInterval] apart
// (5 s by default) get op 9 Invalid Session, as Discord answers an
// IDENTIFY over the concurrency limit. Each of these is a violation.
// READY names the shard and its guilds, GUILD_CREATE follows for each guild
// of the shard ((guild_id >> 22) % N, internal/sharding's ShardOf), and
// every interaction and dispatch of a guild goes to the session of its
// shard (those without a guild to shard 0), queued while that shard has no
// ready session; [Server.DispatchToShard] sends an interaction to another
// shard than its guild's, to test a misconfigured deployment. RESUME finds
// the shard by its session id. [Server.Connected] means every shard
// is ready; [Server.ShardConnected] asks about one. With one shard (the
// default) nothing changes: IDENTIFY needs no shard field and the identify
// rate limit is off unless IdentifyInterval is set.
//
// All methods of [Server] and [Pending] are safe for concurrent use.
package fakediscord
