/**
 * Starting and stopping the broker: components are opened in order and pushed on a
 * {@link io.junction.broker.lifecycle.ResourceStack}; a failed start and a normal stop both close that stack in
 * reverse order, so a broker is either fully up or fully closed.
 */
package io.junction.broker.lifecycle;
