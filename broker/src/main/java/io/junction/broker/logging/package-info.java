/** How the broker logs: logback configured in code (console, INFO). */
package io.junction.broker.logging;
