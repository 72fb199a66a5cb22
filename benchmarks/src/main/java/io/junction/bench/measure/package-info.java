/** Measuring helpers shared by the load tools: latency percentiles. */
package io.junction.bench.measure;
