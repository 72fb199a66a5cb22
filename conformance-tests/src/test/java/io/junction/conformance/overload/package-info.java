/** Overload of the assembled broker: many producers, slow consumers, idle connections, a bounded heap, no loss. */
package io.junction.conformance.overload;
