// Queueing waits for the rental answer's burst headroom: how long a request waits before it is
// served when arrivals come at random (Poisson) instead of evenly, at a planned utilisation.
//
// One formula, the M/M/c queue (c servers, Poisson arrivals, exponential service): the chance
// that a request waits at all is Erlang's C formula, and the wait of those that do is
// exponential, so P(wait > t) = C(c, a) x exp(-(c - a) t / s), with a = lambda x s the
// offered load in servers and s the mean service time. Used twice per replica in the plan
// (app/plan_rental.h): prompts waiting for the prefill (c = 1) and requests waiting for a
// KV-cache slot (c = the sequences the KV budget holds).
//
// Thread safety: pure functions.
#pragma once

namespace gpuprobe::model {

/// The wait of one M/M/c queue.
struct QueueWait {
  double servers = 0;           ///< c (whole servers; a fraction is rounded down, at least 1)
  double offered_load = 0;      ///< a = lambda x s, in servers
  double utilisation = 0;       ///< a / c
  double wait_probability = 0;  ///< Erlang C: the share of arrivals that wait at all
  double p99_wait_seconds = 0;  ///< 99th percentile of the wait before service; infinity when a >= c
  bool stable = true;           ///< a < c: the queue does not grow without bound
};

/// The wait of an M/M/c queue with `servers` servers (rounded down, at least 1), offered load
/// `offered_load` (arrival rate x mean service time, >= 0) and mean service time
/// `service_seconds` (> 0). p99 is 0 when fewer than 1% of arrivals wait; infinity (and
/// stable = false) when the load reaches the servers.
QueueWait MmcWait(double servers, double offered_load, double service_seconds);

/// Erlang's C formula: the probability that an arrival to an M/M/c queue with offered load
/// `offered_load` (< servers) waits. 1 when the load reaches the servers.
double ErlangC(int servers, double offered_load);

}  // namespace gpuprobe::model
