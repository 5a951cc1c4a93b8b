package schedulers

import (
	"context"
	"math"
	"time"
)

// exactBB is Exact's own branch and bound, used instead of CBC when the
// graph is small enough (Exact.Solve tries it first; see Exact). The MIP's
// LP relaxation is weak for balanced partitioning (x = 1/k everywhere cuts
// nothing), so CBC spends most of its time closing the bound; a
// combinatorial bound is much tighter on these graphs:
//
//	LB = cut among assigned vertices
//	   + Σ_{v unassigned} min_{p allowed for v} Σ_{u assigned, part(u) != p} ω(u,v)
//
// (each unassigned vertex pays at least its cheapest placement against the
// vertices already placed; the terms count disjoint edges, so the sum is a
// valid lower bound). Vertices are placed in max-adjacency order (next is
// the one most strongly tied to those already placed), each tried in its
// parts by decreasing connection, a new part only as the next unused label
// (parts are interchangeable). Balance prunes: no part above (1+ε)·w_e, and
// the unplaced weight must be able to lift every part to (1−ε)·w_e. The
// incumbent starts from a heuristic partition (MLFM) when it meets the
// bound.
type exactBB struct {
	n, k     int
	w        []float64
	nbr      [][]int32
	nw       [][]float64
	order    []int
	part     []int
	pw       []float64
	conn     []float64 // conn[v*k+p]: edge weight from v to placed vertices in p
	lo, hi   float64
	rest     float64 // weight not yet placed
	cut      float64
	best     float64
	bestPart []int
	nodes    int64
	deadline time.Time
	ctx      context.Context
	stopped  bool
}

// solve returns the optimum partition, or ok=false if the deadline or
// context stopped the search (best then holds the incumbent, if any).
func (b *exactBB) solve() (ok bool) {
	b.dfs(0, 0)
	return !b.stopped
}

func (b *exactBB) lowerBound(depth int) float64 {
	lb := b.cut
	k := b.k
	for _, v := range b.order[depth:] {
		tot, mx := 0.0, 0.0
		c := b.conn[v*k : v*k+k]
		for p, x := range c {
			tot += x
			if x > mx && b.pw[p]+b.w[v] <= b.hi {
				mx = x
			}
		}
		lb += tot - mx
	}
	return lb
}

func (b *exactBB) dfs(depth, used int) {
	if b.stopped {
		return
	}
	if b.nodes++; b.nodes&4095 == 0 {
		if b.ctx.Err() != nil || time.Now().After(b.deadline) {
			b.stopped = true
			return
		}
	}
	if depth == b.n {
		if b.cut < b.best-1e-9 {
			for p := 0; p < b.k; p++ {
				if b.pw[p] < b.lo {
					return
				}
			}
			b.best = b.cut
			copy(b.bestPart, b.part)
		}
		return
	}
	// Balance: the unplaced weight must fill every part to lo.
	need := 0.0
	for p := 0; p < b.k; p++ {
		if b.pw[p] < b.lo {
			need += b.lo - b.pw[p]
		}
	}
	if need > b.rest+1e-9 {
		return
	}
	if b.lowerBound(depth) >= b.best-1e-9 {
		return
	}
	v := b.order[depth]
	k := b.k
	c := b.conn[v*k : v*k+k]
	tot := 0.0
	for _, x := range c {
		tot += x
	}
	limit := min(used+1, k)
	// Parts by decreasing connection (insertion sort over <= k entries).
	var ps [8]int
	np := 0
	for p := 0; p < limit; p++ {
		if b.pw[p]+b.w[v] > b.hi {
			continue
		}
		i := np
		for i > 0 && c[ps[i-1]] < c[p] {
			ps[i] = ps[i-1]
			i--
		}
		ps[i] = p
		np++
	}
	for _, p := range ps[:np] {
		add := tot - c[p]
		b.part[v] = p
		b.pw[p] += b.w[v]
		b.rest -= b.w[v]
		b.cut += add
		for i, u := range b.nbr[v] {
			b.conn[int(u)*k+p] += b.nw[v][i]
		}
		nu := used
		if p == used {
			nu++
		}
		b.dfs(depth+1, nu)
		for i, u := range b.nbr[v] {
			b.conn[int(u)*k+p] -= b.nw[v][i]
		}
		b.cut -= add
		b.rest += b.w[v]
		b.pw[p] -= b.w[v]
		b.part[v] = -1
		if b.stopped {
			return
		}
	}
}

// solveBB runs exactBB within budget. ok is false when the budget or the
// context ran out first.
func solveBB(ctx context.Context, adj adjView, w []float64, k int, eps float64, budget time.Duration, incumbent []int) (parts []int, cut float64, ok bool) {
	n := len(w)
	total := 0.0
	for _, x := range w {
		total += x
	}
	we := total / float64(k)
	tol := 1e-9 * math.Max(we, 1)
	b := &exactBB{n: n, k: k, w: w, nbr: make([][]int32, n), nw: make([][]float64, n),
		part: make([]int, n), pw: make([]float64, k), conn: make([]float64, n*k),
		lo: (1-eps)*we - tol, hi: (1+eps)*we + tol, rest: total, best: math.Inf(1),
		bestPart: make([]int, n), deadline: time.Now().Add(budget), ctx: ctx}
	for v := 0; v < n; v++ {
		b.part[v] = -1
		nbr, ws := adj.Neighbors(v)
		for i, u := range nbr {
			b.nbr[v] = append(b.nbr[v], int32(u))
			b.nw[v] = append(b.nw[v], ws[i])
		}
	}
	if incumbent != nil && checkBalance(w, incumbent, k, eps) == nil {
		b.best = 0
		for v := 0; v < n; v++ {
			for i, u := range b.nbr[v] {
				if int(u) > v && incumbent[u] != incumbent[v] {
					b.best += b.nw[v][i]
				}
			}
		}
		copy(b.bestPart, incumbent)
		b.best += 1e-7 * math.Max(1, b.best) // so an equal cut is still found and proven
	}
	// Max-adjacency order from the heaviest-connected vertex.
	placed := make([]bool, n)
	tie := make([]float64, n)
	for len(b.order) < n {
		next := -1
		for v := 0; v < n; v++ {
			if !placed[v] && (next < 0 || tie[v] > tie[next] || (tie[v] == tie[next] && len(b.nbr[v]) > len(b.nbr[next]))) {
				next = v
			}
		}
		placed[next] = true
		b.order = append(b.order, next)
		for i, u := range b.nbr[next] {
			tie[u] += b.nw[next][i]
		}
	}
	done := b.solve()
	if math.IsInf(b.best, 1) {
		return nil, 0, done
	}
	return b.bestPart, adjCutView(adj, b.bestPart), done
}

// adjView is the part of topologies.Adjacency the solver reads.
type adjView interface {
	Neighbors(v int) ([]int, []float64)
}

// adjCutView is the weight of undirected edges across parts.
func adjCutView(adj adjView, parts []int) float64 {
	cut := 0.0
	for v := range parts {
		nbr, ws := adj.Neighbors(v)
		for j, u := range nbr {
			if u > v && parts[u] != parts[v] {
				cut += ws[j]
			}
		}
	}
	return cut
}
