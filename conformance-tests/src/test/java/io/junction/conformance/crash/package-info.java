/**
 * Crash tests of the assembled broker: {@link io.junction.conformance.crash.CrossProtocolCrashIT} kills the broker
 * process with SIGKILL again and again under load on four protocols (SYNC flush) and checks with a
 * {@link io.junction.conformance.crash.Ledger} that every acknowledged message comes back exactly as sent, that
 * persistent MQTT and JMS deliveries resume, and that POP messages in flight reappear after their visibility time.
 */
package io.junction.conformance.crash;
