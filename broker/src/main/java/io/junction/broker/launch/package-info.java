/** How the broker's JVM is started: a bounded heap when the user set none. */
package io.junction.broker.launch;
