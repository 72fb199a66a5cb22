/** The Netty event loops the broker creates once and shares with every front-end and its own HTTP listener. */
package io.junction.broker.netty;
