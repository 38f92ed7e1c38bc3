// Package usl fits Neil Gunther's Universal Scalability Law to a sweep of
// throughput measurements:
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// σ (contention) and κ (coherency) are bounded at zero and λ (the
// throughput of one unit) is positive. See docs/scalability.md.
package usl

// MinPoints is the fewest distinct sweep values (thread counts, server CPU
// counts) a fit needs: three parameters and enough points beside them to
// tell the model from the noise.
const MinPoints = 6
