/**
 * Store benchmarks: {@link io.junction.bench.store.AppendBenchmark}, a load main that compares the commit-log append
 * rate (ASYNC and SYNC flush) with the raw sequential write rate of the same disk, and
 * {@link io.junction.bench.store.RecordEncodeBenchmark}, a JMH benchmark of the per-message encode and seal cost.
 * How to run them: {@code benchmarks/README.md}.
 */
package io.junction.bench.store;
