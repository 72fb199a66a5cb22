/** Consume queues (fixed 20-byte entries per topic queue) and the dispatcher that builds them, and the id index, from the log. */
package io.junction.core.queue;
