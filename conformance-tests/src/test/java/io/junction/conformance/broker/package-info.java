/** The broker process itself: start-up bounds, health, metrics, graceful stop and start-up failures. */
package io.junction.conformance.broker;
