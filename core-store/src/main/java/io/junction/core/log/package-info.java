/** The commit log: the record layout and codec, segments, the single appender and the flusher (flush modes, group commit). */
package io.junction.core.log;
