package native

import (
	"slices"
	"unicode/utf16"

	"github.com/stormlab/stormlab/schedulers"
)

// Storm's schedulers iterate java.util.HashMap and HashSet instances, and a
// tie among executors or slots is then broken by that iteration order: by
// bucket (the key's hash, spread and masked by the table's capacity), and
// within a bucket by insertion. This file computes the order, so the models
// break ties as Nimbus does. Where the insertion order of colliding keys
// comes from a map the models do not see (Nimbus's own), they keep the order
// they were given (start task, or node and port).

// javaStringHash is java.lang.String.hashCode over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// executorHash is ExecutorDetails.hashCode.
func executorHash(e Executor) int32 { return int32(e.Start) + 13*int32(e.End) }

// slotHash is WorkerSlot.hashCode (Integer.hashCode of the port is the port).
func slotHash(s schedulers.Slot) int32 { return javaStringHash(s.Node) + 13*int32(s.Port) }

// bucket is HashMap.hash (h ^ h>>>16) masked by a power-of-two capacity.
func bucket(h int32, capacity int) int {
	spread := uint32(h) ^ (uint32(h) >> 16)
	return int(spread & uint32(capacity-1))
}

// tableSizeFor is HashMap.tableSizeFor: the least power of two >= c (>= 1).
func tableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}

// capGrown is the capacity of a HashMap or HashSet made empty with the
// default capacity (16) after n puts: it doubles when the size passes three
// quarters of it.
func capGrown(n int) int {
	c := 16
	for n > c*3/4 {
		c <<= 1
	}
	return c
}

// capPutAll is the capacity of new HashMap<>(0) after putAll of n entries
// (HashMap.putMapEntries: tableSizeFor((int)(n / 0.75f + 1)), then growth).
func capPutAll(n int) int {
	if n == 0 {
		return 1
	}
	c := tableSizeFor(int(float32(n)/0.75 + 1))
	for n > c*3/4 {
		c <<= 1
	}
	return c
}

// capCopy is the capacity of new HashSet<>(collection of n)
// (max((int)(n/.75f) + 1, 16), rounded up to a power of two).
func capCopy(n int) int {
	return tableSizeFor(max(int(float32(n)/0.75)+1, 16))
}

// javaOrder returns items as a hash table of the given capacity iterates
// them: by bucket of hash(item), ties in the order of items.
func javaOrder[T any](items []T, hash func(T) int32, capacity int) []T {
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b T) int {
		return bucket(hash(a), capacity) - bucket(hash(b), capacity)
	})
	return out
}
