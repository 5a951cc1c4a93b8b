// Package capacity finds a topology's maximum sustainable throughput under one scheduler: the highest
// open-loop offered rate the cluster keeps up with.
//
// A rate is sustainable when its step (consecutive measurement windows of one run at that rate) meets
// Criteria: over the step the acked tuples are at least MinAchieved of the offered, the complete latency
// p99 measured from each tuple's intended send time stays under P99Bound in every window, and the send
// lag does not grow from the first window to the last by more than MaxLagGrowth. Latency in every
// window and the lag's trend over them are how a step is confirmed by repeated windows.
//
// The search is the one Theodolite and OpenMessaging Benchmark's max-rate mode use: step the rate up
// exponentially (Factor) from Start until a rate fails, then bisect between the last sustainable and the
// first failed rate until they are within Precision of each other. The search assumes sustainability is
// monotone in the rate; a noisy system may break that, which is why every step is recorded.
//
// The package is pure: a Prober supplies the windows (a Storm cluster in cmd/stormlab, a simulated
// system with a known knee in the tests).
package capacity
