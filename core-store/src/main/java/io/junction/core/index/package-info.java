/** The unique-id and key index: memory-mapped hash files mapping keys to log offsets. */
package io.junction.core.index;
