package io.junction.spi;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;

/**
 * The Netty event loops every front-end shares. The broker creates them once (epoll when the native transport loads,
 * NIO otherwise) and sizes them for the machine, so five protocols do not start five thread pools on a two-core box.
 * Front-ends never shut these down.
 */
public interface EventLoops {

    /** Accepts connections; one thread is plenty. */
    EventLoopGroup boss();

    /** Runs connections' I/O and handlers. */
    EventLoopGroup worker();

    /** The server channel class matching the groups' transport. */
    Class<? extends ServerChannel> serverChannelType();

    /** The client channel class matching the groups' transport (for outgoing connections such as push deliveries). */
    Class<? extends Channel> socketChannelType();

    /** A server bootstrap with groups and channel type set; the caller adds options, the child handler and binds. */
    default ServerBootstrap serverBootstrap() {
        return new ServerBootstrap().group(boss(), worker()).channel(serverChannelType());
    }

    /** A client bootstrap on the worker group; the caller adds the handler and connects. */
    default Bootstrap clientBootstrap() {
        return new Bootstrap().group(worker()).channel(socketChannelType());
    }
}
