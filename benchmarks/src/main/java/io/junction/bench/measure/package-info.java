/**
 * Measuring helpers shared by the load tools: latency percentiles, other processes' CPU time, and the fixed-rate
 * (open-loop) driver: {@link io.junction.bench.measure.FixedRateDriver} starts sends on a schedule of intended times,
 * {@link io.junction.bench.measure.OpenLoopLatency} records send-ack and end-to-end latency from those intended times
 * (coordinated omission corrected) in HdrHistograms, {@link io.junction.bench.measure.FixedRateReport} prints them.
 */
package io.junction.bench.measure;
