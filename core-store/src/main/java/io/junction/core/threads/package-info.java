/**
 * Handing work to the store's thread pools, and what a caller sees when a closed store's pools refuse it.
 */
package io.junction.core.threads;
