/** The broker as one node of a replicated store group: reading the {@code cluster.*} keys, {@code GET /cluster}. */
package io.junction.broker.cluster;
