/** Durable metadata: topics, groups and consumer offsets, written atomically (temp file, fsync, rename). */
package io.junction.core.meta;
