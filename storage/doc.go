// Package storage keeps quizhost's state in one bbolt file: guild settings,
// posts, answers, scores and leaderboards, the asked history and imported
// banks. It owns every bucket name, key encoding and transaction; callers
// see the questions domain types and the methods of DB, never bytes or a
// *bbolt.Tx. A DB is safe for concurrent use; one process opens the file
// at a time (Open fails with ErrInUse after Options.Timeout). Times are
// stored to the nanosecond and come back in UTC; compare them with Equal.
// Domain failures are the questions package's sentinel errors
// (questions/errors.go: ErrNotFound, ErrAlreadyAnswered, ErrClosed,
// ErrWrongGuild, ErrBadChoice…), wrapped with the operation: test them with
// errors.Is.
//
// # Durability
//
// Every method that changes data returns after its transaction has
// committed, and bbolt's commit fsyncs (unless Options.NoSync, for
// tests): a nil error means the change survives a crash. RecordAnswer, the hot path, merges
// concurrent callers into shared transactions (a leader/follower group
// commit, see groupCommit), so many answers share one fsync pair without
// the fixed 10 ms wait of bbolt's DB.Batch. An answer, its post tallies,
// its scores, streaks, topic stats and leaderboard entries are written in
// one transaction, and so are the question's statistics (insights.go).
// Scores, indexes and statistics are derived data: RebuildScores and
// RebuildStats recount them from the answers.
//
// # Size
//
// The layout keeps what an answer adds small (schema version 8): one
// answer record per member and question holds their answers to it and
// their memory of it, keyed by the question's number in the guild (qids,
// qnames) rather than its ID; one member record holds a member's all-time score,
// streak, topic stats and rows of the latest day, week and month; a
// period holds one ranking entry per member (their score is in it);
// records written per answer or per member are compact binary (uvarints,
// no field names). A transaction that only appended to a bucket (a
// ranking's group: see rank.go; a new post or review) has bbolt fill the
// pages it splits completely (deltas' fillState, appendPut); bbolt's
// half-full split is kept where keys land anywhere (member and answer
// records). bbolt grows the file 4 MiB at a time (allocSize). Pages freed
// by a change are reused by later writes but never given back: CompactFile
// rewrites a file without them, and BackupFile's copies are compacted.
// Space reports where a file's bytes go (bench/growth prints it).
//
// # Schema
//
// Integer keys are 8-byte big-endian (so they sort as numbers); composite
// keys are fixed-width concatenations, so a prefix Seek finds a group.
// "^x" is the bitwise complement (descending order), "reached" is the
// time a member reached their points as Unix nanoseconds with the sign bit
// flipped, "acc" is the float64 bits of correct/answered.
//
//	meta/
//	    schema → u64                       schema version (see migrations)
//	    shards → "i-j/N"                   shard layout the file holds (absent: 0-0/1, every server)
//	settings/
//	    <guild> → JSON settings
//	posts/                                 sequence = last post ID
//	    <post> → JSON post (tallies, answers, right, revealed, revealSent)
//	open/
//	    <guild><channel><post> → ∅          open posts
//	unrevealed/
//	    <post> → ∅                          closed posts whose reveal is not recorded yet
//	mockdue/                               created on the first mock exam
//	    <guild><user><mock> → deadline     mock exams open, or ended by their deadline with the result not yet sent
//	guilds/
//	    <guild>/
//	        info/
//	            reset → u64                answer sequence at the last ResetGuild
//	        answers/                       sequence = last answer sequence number
//	            <user><question number> → answer record: the member's FSRS card of the question (due, stability,
//	                                       difficulty, elapsed, scheduled, reps, lapses, state), then each of their
//	                                       answers to its posts and reviews: post or review ID, seq, interaction,
//	                                       at, right, review, right picks, points, letters (answerrec.go); and
//	                                       their answers in ended mock exams: mock ID, the attempt's seq, at, right
//	            <user> → the same without a card   answers to posts without a question ID
//	        asked/
//	            <question ID> → <post>     asked in the current round
//	        asks/                          created on a member's first /quiz ask
//	            <user> → at, <post>        the member's last ask (CreateAsk's cooldown)
//	        banks/
//	            <lower-case name> → JSON bank record: name, format, imported at and by
//	        bankdata/
//	            <lower-case name> → the bank's file as it is (stored by this build: the merged bank as YAML)
//	        bankinfo/
//	            <lower-case name> → questions u64, bytes u64   what the quota counts of that bank (see Options.Quota)
//	        confirms/                      sequence = last confirmation ID; created on the first
//	            <confirmation> → JSON confirmation  an admin's request waiting for Confirm: action, admin, bank, stamp, an import's banks, expiry
//	        drafts/                        sequence = last draft ID
//	            <draft> → JSON draft       pasted questions before Add; suggestions waiting for review
//	        exams/
//	            <user> → JSON exam date    {"date": "2006-01-02", "bank": …}
//	        qids/                          sequence = last question number
//	            <question ID> → u32        the number the answer records name the question by (never reused)
//	        qnames/
//	            <u32> → question ID
//	        qstats/                        schema 9: the item analysis (insights.go)
//	            <question number u32> → statistics: bank, key, answers, right, strong members' answers, each
//	                                       option's picks (right, wrong, strong), wrong combinations, discrimination sums
//	        qbanks/
//	            <user><lower-case bank> → answers, right   the member's answers to the bank's posts (for the next y)
//	        qdismissed/                    created on the first dismissal
//	            <question number u32> → answers, right, key   the statistics when an admin dismissed its flags
//	        members/
//	            <user> → member record     all-time points, answered, correct, reached, current and best streak,
//	                                       last study day; the day, week and month of the latest answer and the
//	                                       member's points, answered, correct, reached there; topic stats (members.go)
//	        drills/                        created on a member's first /quiz drill
//	            <user> → JSON drill        the member's drill: topic, question IDs in order, how many shown, start
//	        reviews/
//	            <review> → review record   a question shown in /quiz review: member, times, key snapshot, question, bank, tags
//	        shown/
//	            <user><review> → ∅          reviews not answered yet (deleted with them once expired)
//	        mocks/                         sequence = last mock exam ID; created on the first mock exam
//	            <user><mock> → JSON attempt    a member's mock exam: bank, pass mark, times, each question's key, answer and flag; seq once ended
//	        bankexams/                     created on the first /quizadmin bank exam
//	            <lower-case name> → JSON exam settings   questions, minutes, pass mark an admin set for a bank
//	        reports/                       sequence = last report ID; created on the first report
//	            <report> → JSON report     a member's report about a question: question, post, member, text, time
//	        resets/
//	            <user> → u64               answer sequence at the member's last ResetMember
//	        undo/                          sequence = last version ID; created on the first
//	            <version> → JSON kept version   a bank file as it was before a change, the change, admin, time, digest after, expiry
//	        streaks/
//	            <last study day u32><^current streak u32><user> → ∅
//	        periods/
//	            all | d2006-01-02 | w<Monday 2006-01-02> | m2006-01 /
//	                n → u64                members ranked by points
//	                na → u64               members ranked by accuracy
//	                0x01<^points><^acc>/   the points ranking: a group of members equal on both
//	                    <reached><user> → answered, correct
//	                pb/
//	                    <fence: a points key> → u64 count   the points ranking cut in blocks (rank.go)
//	                0x02<^acc><^answered>/   the accuracy ranking (≥ MinAnswersForAccuracy answers): a group
//	                    <reached><user> → points, correct
//	                ab/
//	                    <fence: an accuracy key> → u64 count
//
// # Leaderboards without scanning members
//
// Each period of each guild has its own rankings, written by RecordAnswer:
// an answer updates four periods (all time, and the day, week and month
// that contain it in the guild's time zone; weeks start on Monday, a day is
// a local calendar day whatever its length across DST changes). Changing
// the guild's time zone (SaveSettings, UpdateSettings) recounts them in
// the new zone in the same transaction, so no index mixes zones. A
// ranking holds each member's key, ^points|^acc|reached|user (by points)
// or ^acc|^answered|reached|user (by accuracy), 32 bytes, and the rest of
// their score as its value; a forward walk yields the members best first,
// so the top N is N steps. The keys live in groups, one sub-bucket of the
// period's bucket per first 16 bytes (its name prefixed by the ranking's
// tag byte): members equal on points and accuracy, ordered by when they
// reached them; a member reaching a group has the latest time in it
// (mostly), so groups grow at their end and their pages are filled (see
// deltas). For ranks and offsets, the ranking is cut into blocks of
// consecutive keys (pb, ab: each block's first possible key, its fence,
// and how many keys it holds; 128 to 1,024): a member's rank is one plus
// the counts of the blocks before theirs plus the keys before theirs in
// their block, whatever the ties; a page at an offset walks the counts the
// same way. An answer moves a member's key in each ranking and changes the
// counts of at most two blocks; the answers of one group commit sum their
// changes to the blocks, n and na in memory (deltas) and write each
// touched count once before the commit, then split blocks grown past 1,024
// keys and merge those fallen under 128 into the block before (their
// rankings' keys are written answer by answer). So do the tallies of their
// posts: each post answered is encoded and written once per group commit,
// and an answer read in the same transaction sees the tallies of the
// answers before it.
//
// A member's score in a period is their key there; their member record
// finds it: it holds their all-time score and their scores in the day,
// week and month of their latest answer. A score in an earlier period (an
// answer delivered after one in a later period, a standing asked for a
// past period) is found by walking that period's ranking. The streaks
// live with the all-time score only; readers show them with every score,
// the current streak shown as 0 once the last study day is before
// yesterday.
//
// # Resets
//
// ResetGuild and ResetMember clear derived data and record the answer
// sequence number at the reset (info/reset, resets/<user>); answers stay as
// history and RebuildScores counts only those recorded after the reset.
// ResetMember walks every period's points ranking for the member's keys.
//
// # Shards
//
// A deployment that outgrows one gateway connection runs several processes,
// each a contiguous range of Discord's gateway shards and its own file
// holding exactly their servers: a server belongs to shard
// (guild_id >> 22) % N (sharding.ShardOf). meta/shards records the layout
// a file was written for (a sharding.Layout as text, "i-j/N");
// ClaimShardLayout checks it at start and refuses a process of another
// layout (ErrShardLayout).
// No schema version was needed: a file without the key holds every server.
//
// Reshard moves servers between the files of two layouts offline. It knows
// how to find the server of every top-level record (reshardBuckets:
// guilds/<guild> whole, settings/<guild>, open/<guild>…, mockdue/<guild>…, posts/ by the
// post's "guild", unrevealed/ through its post) and refuses a file with a
// top-level bucket or meta key it does not know; a new top-level bucket
// needs a rule there (TestReshardKnowsEveryBucket fails until it has one).
// Anything added under guilds/<guild>/ moves with its server unchanged.
//
// Post IDs travel in Discord custom IDs, so they are never renumbered and
// stay unique across the files of a deployment: the posts sequence of each
// file starts a range of its own, 10^9 IDs wide. Reshard gives output i the
// range starting at base + i·10^9, base being the first multiple of 10^9
// above every post ID of the inputs; a new file claimed for shards i-j
// starts at i·10^9. Reshard refuses inputs in which two posts with one ID
// would land in one file (files not made by one deployment).
//
// # Migrations
//
// Open reads meta/schema, refuses a newer version (ErrSchemaTooNew), runs
// the missing migrations in order and stamps the new version, all in one
// Update (which holds, for a large file, all its rewritten pages in memory
// until the commit: version 8 rewrites most of a file). Version 1 created the top-level buckets; version 2 added the
// streaks index; version 3 added unrevealed/ and marked every post closed
// before it as revealed (earlier builds revealed at the close and kept no
// record of a failure). From then on a closed post is in unrevealed/
// exactly when its record is not marked revealed. Version 4 added
// guilds/<g>/drafts to every guild. Version 5 added guilds/<g>/memory,
// exams and reviews, and built every member's memory of every question
// from the stored answers in recording order (RebuildMemory recomputes
// them the same way). Version 6 added guilds/<g>/shown, indexing every
// review without an answer of its member. Version 7 moved each imported
// bank's file out of its JSON record (where it was base64) into
// guilds/<g>/bankdata as it is, and counted each bank's questions (parsed
// as this build parses them) and bytes in guilds/<g>/bankinfo, which the
// quota reads (see Options.Quota); kept versions and confirmations keep
// their files in their own records, as before. Version 8 (compactLayout)
// turned the layout of version 7 (legacy.go: answers keyed by post and
// member, memories apart, per-period score rows, flat rankings with
// histograms of their key prefixes, topic stats apart, JSON reviews) into
// this one: every reader returns what it returned before (TestMigrateV7
// compares a migrated file with the same history written by this build).
// Migrations 2 to 7 read and write the layout of version 7. Version 9
// (buildStats) counted every guild's question statistics (qstats, qbanks)
// from its answers to posts (not reviews', not the mock answers of ended
// mock exams), as RecordAnswer counts them since. A file at the
// latest version is only read: Open writes nothing to it.
//
// # Memory and reviews
//
// A member's memory of a question (FSRS, see questions.Remember) is
// written, in their answer record of the question, in the transaction of
// each graded answer, live or review, and is derived data like the scores:
// RebuildMemory recounts it from the answers the record holds, whatever
// the resets (memory is knowledge, not
// competition: ResetGuild and ResetMember keep it). A review answer is
// stored with the answers, under the review's ID; it counts a study day
// for the streak and nothing on the boards (countReview). A review that
// expired unanswered is deleted (StartReview for its member, PruneExpired
// for all); an answered one stays, as history: a redelivery of its
// answer is recognised through it, and a regrade updates its key.
//
// # Mock exams
//
// A member's mock exam (mocks.go) is one record holding its questions,
// the key of each as it was at the start, and the member's answers and
// flags; each click rewrites it (UpdateMock, one transaction). When it
// ends, the same transaction stamps it with the guild's next answer
// sequence number and adds each answered question to the member's answer
// record of it as a mock answer (the attempt's ID, that number, the end,
// right or wrong), counted into the card as a review answer (never into
// scores): the card's History holds it, rebuildMemory replays it in its
// place among the record's answers, and Regrade grades the attempts
// again and sets their mock answers' right from them. The top-level mockdue/ lists the attempts the
// scheduler must act on at a deadline, so that it finds them without
// reading every guild; the attempts ended by their deadline stay in it
// until their result is sent (MockNotified). The buckets are created on
// first use and read as empty when absent: no schema version was needed.
//
// # Confirmations and undo
//
// A change that removes questions from a guild's imported banks (a bank
// removed, replaced by an import, a question removed) is first a
// confirmation (SaveConfirmation): a record of what it will do and a
// digest of the banks it was asked against, with an import's banks,
// deleted when taken (TakeConfirmation: one click gets it) or
// questions.ConfirmExpiry after it was made. EditBanks makes the change
// and keeps the bank as it was (a version, questions.UndoKeep long) in
// one transaction, so a change is never stored without its version nor
// the other way round; a restore (EditBanks with Restore) deletes the
// version it puts back in the same transaction. EditBanks writes banks as
// SaveBanks does (the file in bankdata/, its counts in bankinfo/, all
// three deleted with a removed bank) and holds the guild to its quota
// over the whole edit, a restore included: a restore past a bound stores
// nothing and keeps its version for when the guild has made room. Both buckets are created
// on first use and read as empty when absent, so no schema version was
// needed; both are held to per-guild bounds (questions/undo.go) in the
// transaction that writes them, and PruneExpired deletes what expired.
//
// # Caps held in the write
//
// Per-member caps are checked in the transaction that writes, so that
// requests made at once cannot all pass: CreateAsk (a member's /quiz ask:
// cooldown, open questions per channel, the current round), SaveDraft
// (queued suggestions; unqueued drafts, the oldest replaced) and
// StartReview (unanswered reviews, the oldest replaced).
//
// # Files
//
// Each file holds one concern, the methods of DB for it and the encoding
// of its records:
//
//	db.go, migrate.go, keys.go     Open and Close, the migrations, every bucket name and key encoding
//	legacy.go                      the layout of schema version 7, which only the migrations read
//	buckets.go                     a guild's buckets (guilds/<guild> and those inside it); deleting a bucket tree
//	damage.go, release_*.go        ErrDamaged, Check and the checks at Open; unmapping pages read once
//	backup.go, compact.go, ops.go  hot backups (compacted); CompactFile; the admin listener's probe and gauge
//	space.go                       Space: where a file's bytes go, bucket by bucket
//	posts.go                       posts: created, open, closed, revealed; the questions open in a guild
//	asks.go, asked.go              a member's last /quiz ask (its limits); the questions asked in the current round
//	answers.go, answerrec.go       RecordAnswer and the answers stored; the answer record (answers and memory)
//	groupcommit.go, deltas.go      the answer path's shared transactions, their buffered counter changes and fill
//	decodecache.go                 the decode cache of posts and settings (not memory.go's FSRS memory)
//	scores.go, rank.go, members.go periods and streaks; a period's rankings (groups and blocks); the member record
//	leaderboard.go                 leaderboards, standings, member stats, active streaks
//	resets.go, rebuild.go          ResetGuild and ResetMember; RebuildScores, which recounts from the answers
//	prune.go                       PruneScores (old periods) and PruneExpired (reviews, drafts, confirmations, versions)
//	settings.go                    a guild's settings and its daily question's claim
//	banks.go                       imported banks (file, record, counts) held to the quota
//	drafts.go, reports.go          pasted drafts and suggestions; members' reports
//	undo.go                        confirmations waiting for a click, kept versions of banks, EditBanks
//	memory.go, review.go, exams.go members' FSRS memory and review queue; /quiz review questions; exam dates
//	mocks.go, bankexams.go         members' mock exams and the scheduler's index of them; the exam settings admins set
//	regrade.go                     Regrade: a question's answers graded again under its corrected key
//	insights.go                    the item analysis: per-question statistics kept by RecordAnswer, dismissed flags
//	shards.go, reshard.go          the shard layout a file holds; Reshard between layouts, offline
package storage
