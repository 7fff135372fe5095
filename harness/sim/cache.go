package sim

import (
	"encoding/binary"
	"hash/maphash"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// The prefix cache (Config.CacheBlocks), after vLLM's automatic prefix
// caching: a prompt's tokens, as promptTokens counts them, are cut into
// blocks of CacheBlock, each block's hash chaining the one before it, so
// that a block is found only after the same prefix. A request's cached
// tokens are the longest run of its leading blocks found in the cache,
// never its whole prompt (as vLLM, it prefills at least its last token);
// then all its full blocks go into the cache, the first one most recently
// used, so that the least recently used blocks, evicted first, are the
// tails of old prompts. Lookup and insertion happen when a request starts
// generating (after its queue wait, with Slots), so a request that never
// generates (a status fault, a client gone while queued) caches nothing.
// Only prompts are cached, not answers: a conversation's next turn finds
// the blocks of its previous turns' prompts.

// CacheBlock is the prefix cache's block size in prompt tokens, vLLM's
// default.
const CacheBlock = 16

// maxCacheBlocks bounds Config.CacheBlocks, and with it the cache's
// memory: some 40 bytes a block, so 160 MiB at most.
const maxCacheBlocks = 1 << 22

// prefixCache is an LRU of block hashes, bounded by its limit, safe for
// concurrent use. Its nodes live in one slice, linked by index.
type prefixCache struct {
	mu         sync.Mutex
	seed       maphash.Seed
	limit      int
	index      map[uint64]int32
	nodes      []lruNode
	head, tail int32 // most and least recently used; -1 when empty
}

type lruNode struct {
	key        uint64
	prev, next int32
}

func newPrefixCache(limit int) *prefixCache {
	return &prefixCache{seed: maphash.MakeSeed(), limit: limit, index: map[uint64]int32{}, head: -1, tail: -1}
}

// admit returns how many of the leading hashes were cached, at most
// usable of them, and then caches them all.
func (pc *prefixCache) admit(hashes []uint64, usable int) int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	hit := 0
	for hit < min(usable, len(hashes)) {
		if _, ok := pc.index[hashes[hit]]; !ok {
			break
		}
		hit++
	}
	for i := len(hashes) - 1; i >= 0; i-- {
		pc.touch(hashes[i])
	}
	return hit
}

// touch makes key the most recently used, adding it, and evicting the
// least recently used block when the cache is full.
func (pc *prefixCache) touch(key uint64) {
	i, ok := pc.index[key]
	switch {
	case ok:
		pc.unlink(i)
	case len(pc.nodes) < pc.limit:
		i = int32(len(pc.nodes))
		pc.nodes = append(pc.nodes, lruNode{})
	default:
		i = pc.tail
		pc.unlink(i)
		delete(pc.index, pc.nodes[i].key)
	}
	pc.nodes[i] = lruNode{key: key, prev: -1, next: pc.head}
	if pc.head >= 0 {
		pc.nodes[pc.head].prev = i
	}
	pc.head = i
	if pc.tail < 0 {
		pc.tail = i
	}
	pc.index[key] = i
}

func (pc *prefixCache) unlink(i int32) {
	n := pc.nodes[i]
	if n.prev >= 0 {
		pc.nodes[n.prev].next = n.next
	} else {
		pc.head = n.next
	}
	if n.next >= 0 {
		pc.nodes[n.next].prev = n.prev
	} else {
		pc.tail = n.prev
	}
}

// blocks is the number of blocks cached.
func (pc *prefixCache) blocks() int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return len(pc.index)
}

// blockHashes hashes req's prompt tokens in blocks of CacheBlock, each
// hash over the one before and the block's tokens with their roles; a
// last, partial block is left out.
func blockHashes(req *openai.ChatCompletionRequest, seed maphash.Seed) []uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var out []uint64
	var prev [8]byte
	n := 0
	promptWords(req, func(role, word string) {
		if n == 0 {
			h.Reset()
			h.Write(prev[:])
		}
		h.WriteString(role)
		h.WriteByte(0)
		h.WriteString(word)
		h.WriteByte(0)
		if n++; n == CacheBlock {
			sum := h.Sum64()
			out = append(out, sum)
			binary.LittleEndian.PutUint64(prev[:], sum)
			n = 0
		}
	})
	return out
}

// lookupCache finds the request's cached prefix, caches its blocks and
// sets its truth; it reports whether the cache spared any prefill.
func (c *call) lookupCache() bool {
	pc := c.s.prefixCache()
	if pc == nil {
		return false
	}
	tr := c.tr
	tr.Cache = true
	usable := max(tr.PromptTokens-1, 0) / CacheBlock
	tr.CachedTokens = pc.admit(blockHashes(c.req, pc.seed), usable) * CacheBlock
	tr.PrefillTokens = tr.PromptTokens - tr.CachedTokens
	return tr.CachedTokens > 0
}

// prefixCache is the server's cache, nil when it has none.
func (s *Server) prefixCache() *prefixCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache
}
