/**
 * What a front-end knows of the cluster it runs in: the other nodes' client-facing addresses, read from the replicated
 * key-value configs through the contract (front-ends never depend on the cluster module).
 */
package io.junction.spi.cluster;
