/**
 * Broker processes forming one replicated store group: failover with every acknowledged message kept; store-only
 * nodes behind stateless proxies.
 */
package io.junction.conformance.cluster;
