/**
 * The clients connected to the front-ends, as operators see them: each front-end lists its connections here (who,
 * from where, since when, what it reads) with a way to disconnect them; the broker's console reads the list.
 */
package io.junction.spi.clients;
