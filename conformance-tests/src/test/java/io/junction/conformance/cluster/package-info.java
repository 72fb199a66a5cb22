/** Three broker processes forming one replicated store group: failover with every acknowledged message kept. */
package io.junction.conformance.cluster;
