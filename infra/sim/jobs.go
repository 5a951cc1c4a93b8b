package sim

// jobHeap is a binary min-heap of the executors in service on one cpu, by the virtual time their job
// ends (then by when it started, so equal ends keep their order); each executor knows its position
// (jidx), so a cancelled job leaves in O(log n).
type jobHeap []*executor

func (h jobHeap) less(i, j int) bool {
	if h[i].vend != h[j].vend {
		return h[i].vend < h[j].vend
	}
	return h[i].jseq < h[j].jseq
}

func (h jobHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].jidx, h[j].jidx = i, j
}

func (h *jobHeap) push(e *executor) {
	e.jidx = len(*h)
	*h = append(*h, e)
	h.up(e.jidx)
}

// pop removes and returns the job that ends first.
func (h *jobHeap) pop() *executor { return h.remove(0) }

// remove takes out the job at position i.
func (h *jobHeap) remove(i int) *executor {
	q := *h
	e, n := q[i], len(q)-1
	if i != n {
		q.swap(i, n)
	}
	q[n] = nil
	*h = q[:n]
	if i != n {
		if !h.down(i) {
			h.up(i)
		}
	}
	e.jidx = -1
	return e
}

func (h jobHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

// down sifts position i down; it reports whether the job moved.
func (h jobHeap) down(i int) bool {
	start, n := i, len(h)
	for {
		l, small := 2*i+1, i
		if l < n && h.less(l, small) {
			small = l
		}
		if r := l + 1; r < n && h.less(r, small) {
			small = r
		}
		if small == i {
			return i > start
		}
		h.swap(i, small)
		i = small
	}
}
