/** A Jepsen-style history checker: acknowledged sends and deliveries across protocols, checked for loss, duplicates and FIFO order. */
package io.junction.conformance.history;
