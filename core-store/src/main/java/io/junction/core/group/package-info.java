/**
 * Consumer groups at run time: client membership kept by heartbeats (for client-side rebalancing), queue leases for
 * orderly consumption, and lag.
 */
package io.junction.core.group;
