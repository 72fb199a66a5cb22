/**
 * The medium below the store: segment files (write, force, reads lent through a bounded window of mapped regions)
 * behind an interface so faults can be injected, and the mapped-while-filled files of the consume queues and indexes.
 * What is mapped at once is bounded here, so the broker's resident memory does not grow with its data.
 */
package io.junction.core.io;
