package io.junction.conformance.support;

import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.Options;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.srvutil.ServerUtil;
import org.apache.rocketmq.tools.command.SubCommand;

/**
 * Runs one {@code mqadmin} sub-command of the RocketMQ tools in this JVM, as {@code MQAdminStartup} does (options
 * parsed the same way; {@code -n} becomes the name-server property the command's own admin client reads), except
 * that a failure reaches the caller as the command's exception instead of being printed (and a bad option line is an
 * exception, not {@code System.exit}).
 */
public final class MqAdminCommand {
    private MqAdminCommand() {
    }

    /** Runs {@code command} with {@code args} against the name server at {@code nameServer}. */
    public static synchronized void run(final String nameServer, final SubCommand command, final String... args)
            throws Exception {
        final Options options = command.buildCommandlineOptions(ServerUtil.buildCommandlineOptions(new Options()));
        final CommandLine line = new DefaultParser().parse(options, args);
        final String before = System.getProperty(MixAll.NAMESRV_ADDR_PROPERTY);
        System.setProperty(MixAll.NAMESRV_ADDR_PROPERTY, nameServer);
        try {
            command.execute(line, options, null);
        } finally {
            if (before == null) {
                System.clearProperty(MixAll.NAMESRV_ADDR_PROPERTY);
            } else {
                System.setProperty(MixAll.NAMESRV_ADDR_PROPERTY, before);
            }
        }
    }
}
