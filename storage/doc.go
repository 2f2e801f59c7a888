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
// one transaction. Scores and indexes are derived data: RebuildScores
// recounts them from the answers.
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
//	            <post><user> → seq, interaction, at, right, right picks, points, letters
//	            <review><user> → the same          a review answer (review IDs come from the posts sequence)
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
//	        memory/
//	            <user><question ID> → FSRS card (due, stability, difficulty, …), then (at, right, review) per answer
//	        exams/
//	            <user> → JSON exam date    {"date": "2006-01-02", "bank": …}
//	        drills/                        created on a member's first /quiz drill
//	            <user> → JSON drill        the member's drill: topic, question IDs in order, how many shown, start
//	        reviews/
//	            <review> → JSON review     a question shown in /quiz review: member, question, key snapshot, expiry
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
//	        topics/
//	            <user><topic> → answered, correct
//	        undo/                          sequence = last version ID; created on the first
//	            <version> → JSON kept version   a bank file as it was before a change, the change, admin, time, digest after, expiry
//	        streaks/
//	            <last study day, 10 bytes><^current streak><user> → ∅
//	        periods/
//	            all | d2006-01-02 | w<Monday 2006-01-02> | m2006-01 /
//	                n → u64                members ranked by points
//	                na → u64               members ranked by accuracy
//	                rows/
//	                    <user> → points, answered, correct, reached, current, best, last study day
//	                pts/
//	                    <^points><^acc><reached><user> → ∅
//	                ph/
//	                    <level><prefix of a pts key> → u64 count
//	                acc/                   members with ≥ MinAnswersForAccuracy answers
//	                    <^acc><^answered><reached><user> → ∅
//	                ah/
//	                    <level><prefix of an acc key> → u64 count
//
// # Leaderboards without scanning members
//
// Each period of each guild has its own rows and rankings, written by
// RecordAnswer: an answer updates four periods (all time, and the day, week
// and month that contain it in the guild's time zone; weeks start on Monday,
// a day is a local calendar day whatever its length across DST changes).
// Changing the guild's time zone (SaveSettings, UpdateSettings) recounts
// them in the new zone in the same transaction, so no index mixes zones.
// A ranking is a sorted key set (pts, acc) whose forward cursor walks the
// members best first, so the top N is N cursor steps. For ranks and
// offsets, a histogram (ph, ah) counts the keys under each prefix at five
// levels: 8 bytes (points; or accuracy), 16 bytes (points and accuracy; or
// accuracy and answers), then those plus the top 2, 3 and 4 bytes of
// reached (time slices of 2^48 ns ≈ 3.3 days, 2^40 ns ≈ 18 min, 2^32 ns ≈
// 4.3 s; at most 256 entries under one parent). A member's rank is one plus,
// at each level, the counts of the smaller prefixes under the member's own
// prefix of the level above (distinct point values, then distinct
// accuracies within one point value, then at most 3 × 256 time slices),
// plus a scan of the keys in the member's own 20-byte group: members tied
// on points and accuracy who reached them within the same 4.3 s. Leaderboard
// pages at an offset descend the same counters. An answer moves a member's
// key and adjusts only the counters whose prefix changed: at most ten
// counter changes per ranking and period. The answers of one group commit
// sum their changes to ph, ah, n and na in memory (deltas) and write each
// touched counter once before the commit, skipping those whose changes
// cancel out; their rows and keys are written answer by answer. So do the
// tallies of their posts: each post answered is encoded and written once
// per group commit, and an answer read in the same transaction sees the
// tallies of the answers before it.
//
// Streaks live in the all-time row only (the streak fields of day, week
// and month rows stay zero; files written before kept a copy there, which
// nothing reads and RebuildScores clears); readers show the all-time row's
// streaks, with the current streak shown as 0 once the last study day is
// before yesterday.
//
// # Resets
//
// ResetGuild and ResetMember clear derived data and record the answer
// sequence number at the reset (info/reset, resets/<user>); answers stay as
// history and RebuildScores counts only those recorded after the reset.
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
// Update. Version 1 created the top-level buckets; version 2 added the
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
// their files in their own records, as before.
//
// # Memory and reviews
//
// A member's memory of a question (FSRS, see questions.Remember) is
// written in the transaction of each graded answer, live or review, and is
// derived data like the scores: RebuildMemory recounts it from every
// stored answer, whatever the resets (memory is knowledge, not
// competition: ResetGuild and ResetMember keep it). A review answer is
// stored with the answers, under the review's ID; it counts a study day
// for the streak and nothing on the boards (countReview). A review that
// expired unanswered is deleted (StartReview for its member, PruneExpired
// for all); an answered one stays, as its answer's source.
//
// # Mock exams
//
// A member's mock exam (mocks.go) is one record holding its questions,
// the key of each as it was at the start, and the member's answers and
// flags; each click rewrites it (UpdateMock, one transaction). When it
// ends, the same transaction counts its answers into the member's memory
// as review answers (never into scores) and stamps it with the guild's
// next answer sequence number, so that rebuildMemory replays them in
// their place among the stored answers, and Regrade grades them again
// like the others. The top-level mockdue/ lists the attempts the
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
//	buckets.go                     a guild's buckets (guilds/<guild> and those inside it)
//	damage.go, backup.go, ops.go   ErrDamaged and Check; hot backups; the admin listener's probe and gauge
//	posts.go                       posts: created, open, closed, revealed; the questions open in a guild
//	asks.go, asked.go              a member's last /quiz ask (its limits); the questions asked in the current round
//	answers.go                     RecordAnswer and the answers stored
//	groupcommit.go, deltas.go      the answer path's shared transactions and their buffered counter changes
//	decodecache.go                 the decode cache of posts and settings (not memory.go's FSRS memory)
//	scores.go, rank.go             periods, their rows and streaks; the rank index (pts, acc and their histograms)
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
//	shards.go, reshard.go          the shard layout a file holds; Reshard between layouts, offline
package storage
