package applier

import "container/heap"

// readyQueue holds the changes ready to start, the first by address at
// the top: the order they start in is the order a sort of them all before
// each start gave (issue 13: that sort, at each of 10,000 starts, made an
// apply's cost grow with the square of its changes).
type readyQueue []*node

func (q readyQueue) Len() int           { return len(q) }
func (q readyQueue) Less(i, j int) bool { return q[i].c.Addr < q[j].c.Addr }
func (q readyQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)        { *q = append(*q, x.(*node)) }
func (q *readyQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return n
}

// add makes n ready.
func (q *readyQueue) add(n *node) { heap.Push(q, n) }

// next takes the first ready change by address.
func (q *readyQueue) next() *node { return heap.Pop(q).(*node) }
