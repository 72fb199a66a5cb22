/** The canonical message, stored messages, property encoding and message ids. */
package io.junction.core.message;
