/** Metric helpers every front-end uses the same way, so dashboards see one name per concept across protocols. */
package io.junction.spi.metrics;
