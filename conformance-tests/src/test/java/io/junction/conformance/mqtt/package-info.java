/**
 * MQTT 3.1.1 and 5.0 conformance: HiveMQ's client, Eclipse Paho v3 and v5 and raw sockets against the broker jar,
 * one class per chapter of the MQTT 5 specification ({@code Chapter3_1_ConnectIT} covers 3.1 CONNECT, and so on).
 */
package io.junction.conformance.mqtt;
