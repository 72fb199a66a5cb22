/** MQTT load: QoS 1 fan-in / fan-out and idle connections against any broker (see scripts/mqtt-side-by-side.sh). */
package io.junction.bench.mqtt;
