package io.junction.conformance.support;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
            removeMappingFiles(line.getOptionValue('t'));
        }
    }

    /**
     * The static-topic commands write the old and new mapping into {@code <tmpdir>/<topic>-<epoch>.before|.after} for
     * the operator; a test has no use for them, so they do not pile up in the temporary directory.
     */
    private static void removeMappingFiles(final String topic) {
        if (topic == null) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(Path.of(System.getProperty("java.io.tmpdir")),
                topic.trim() + "-*.{before,after}")) {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // Only tidying: a file left behind harms nothing, and must not hide how the command itself ended.
        }
    }
}
