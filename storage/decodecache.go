package storage

// This file keeps the decode cache of posts and settings, which spares the
// answer path decoding the same stored bytes again. (FSRS memory, the
// members' memory of questions, is memory.go's.)

import (
	"bytes"
	"slices"
	"sync"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// decodeCacheSize bounds a decode cache: the records decoded most
// recently, one per key (open posts answered at once; guilds answering at
// once).
const decodeCacheSize = 1024

// decodeCache remembers, for each key, the last record decoded from (or encoded
// to) its stored bytes, so that the same bytes are not decoded again: an
// answer reads its post three times (the bot's Post, RecordAnswer's
// read-only check and its write transaction) and its guild's settings
// twice, and each answer of a group commit re-reads the post the one
// before it wrote. It is keyed by the bytes themselves (a hit needs the
// stored bytes to equal the remembered ones), so it cannot serve a stale
// record whatever happened meanwhile: a rolled-back write, another
// writer, a record changed by code that does not tell the cache. A DB's
// caches are safe for concurrent use.
type decodeCache[K comparable, V any] struct {
	clone func(V) V // a copy the caller may change without touching the cache's
	mu    sync.Mutex
	m     map[K]cacheEntry[V]
}

type cacheEntry[V any] struct {
	raw []byte // owned by the cache; never changed
	v   V
}

// get returns the record stored as raw under k: the remembered one if raw
// is the same bytes, else decode(raw), then remembered. raw may be
// bbolt's (valid only in its transaction): the cache keeps a copy.
func (m *decodeCache[K, V]) get(k K, raw []byte, decode func([]byte) (V, error)) (V, error) {
	m.mu.Lock()
	e, ok := m.m[k]
	m.mu.Unlock()
	if ok && bytes.Equal(e.raw, raw) {
		return m.clone(e.v), nil
	}
	v, err := decode(raw)
	if err != nil {
		return v, err
	}
	m.put(k, bytes.Clone(raw), m.clone(v))
	return v, nil
}

// put remembers v as the record whose bytes are raw. The cache keeps raw
// (the caller must not change it) and v (the caller must not change its
// slices).
func (m *decodeCache[K, V]) put(k K, raw []byte, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = make(map[K]cacheEntry[V])
	}
	if _, ok := m.m[k]; !ok && len(m.m) >= decodeCacheSize {
		for old := range m.m { // forget one, any
			delete(m.m, old)
			break
		}
	}
	m.m[k] = cacheEntry[V]{raw: raw, v: v}
}

func clonePost(p questions.Post) questions.Post {
	p.Tags, p.Correct, p.Tallies = slices.Clone(p.Tags), slices.Clone(p.Correct), slices.Clone(p.Tallies)
	return p
}

func cloneSettings(s questions.Settings) questions.Settings {
	s.Banks = slices.Clone(s.Banks)
	if s.Daily != nil {
		d := *s.Daily
		s.Daily = &d
	}
	return s
}

// post is getPost through the DB's decode cache.
func (db *DB) post(tx *bbolt.Tx, id questions.PostID) (questions.Post, error) {
	v := tx.Bucket(bPosts).Get(u64(id))
	if v == nil {
		return getPost(tx, id) // not found
	}
	return db.postCache.get(id, v, func(v []byte) (questions.Post, error) { return decodePost(id, v) })
}

// putPost is putPost telling the DB's decode cache.
func (db *DB) putPost(tx *bbolt.Tx, p questions.Post) error {
	v, err := encodePost(p)
	if err != nil {
		return err
	}
	if err := tx.Bucket(bPosts).Put(u64(p.ID), v); err != nil {
		return err
	}
	db.postCache.put(p.ID, v, clonePost(p))
	return nil
}

// settings is readSettings through the DB's decode cache.
func (db *DB) settings(tx *bbolt.Tx, guildID questions.GuildID) (questions.Settings, error) {
	v := tx.Bucket(bSettings).Get(u64(guildID))
	if v == nil {
		return questions.DefaultSettings(guildID), nil
	}
	return db.settingsCache.get(guildID, v, func(v []byte) (questions.Settings, error) { return decodeSettings(guildID, v) })
}
