/**
 * Traffic figures admin tools ask for: messages stored and handed out, as rates over the last seconds and minutes and
 * as daily totals, overall and per consumer group and topic. Counted in memory since the store started.
 */
package io.junction.core.stats;
