/**
 * Request processors by area: routes (name-server role), send, pull, offsets, client management, transactions, POP,
 * admin, static topics. Each maps Remoting headers and bodies onto the {@code Messaging} facade and core errors onto
 * Remoting codes.
 */
package io.junction.remoting.processor;
