/** TLS material shared by the listeners: the self-signed development certificate kept in the data directory. */
package io.junction.spi.tls;
