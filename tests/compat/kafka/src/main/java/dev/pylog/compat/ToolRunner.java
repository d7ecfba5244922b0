package dev.pylog.compat;

import org.apache.kafka.common.utils.Exit;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs Kafka's command-line tools one after another inside one JVM, so that a test pays the
 * JVM's start and class loading once instead of once per command.
 *
 * <p>Each line on stdin is one command: tab-separated fields, each Base64 of its UTF-8 text:
 * the main class, the text to give the tool as its stdin, then the arguments. The runner calls
 * that class's {@code main(String[])} in a new thread, with System.in, System.out and
 * System.err swapped for buffers, and answers on its own stdout with one line
 * {@code PYLOG-TOOL-RESULT <exit code> <stdout bytes> <stderr bytes>} followed by the two
 * buffers.
 *
 * <p>Kafka's tools end with {@code Exit.exit(code)} (never System.exit), often from a
 * {@code finally} block inside a {@code catch (Throwable)}. In a script the process ends
 * there; here the exit procedure records the code and parks the calling thread for good, so
 * nothing after the exit runs, as in a real process, and the runner goes on with the next
 * command. A tool whose main returns ends with 0; one that throws ends with 1 and the stack
 * trace in its stderr. The parked threads stay (a few per command, daemon threads).
 *
 * <p>One command runs at a time; the caller writes the next line only after reading a
 * result, and kills the JVM when a command outlives its timeout.
 */
public final class ToolRunner {
    private static final class WrappedFailure extends RuntimeException {
        WrappedFailure(Throwable cause) {
            super(cause);
        }
    }

    private static volatile CompletableFuture<Integer> result;

    public static void main(String[] ignored) throws Exception {
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        InputStream realIn = System.in;
        Exit.Procedure exitAndPark = (code, message) -> {
            result.complete(code);
            while (true) {
                LockSupport.park();
            }
        };
        Exit.setExitProcedure(exitAndPark);
        Exit.setHaltProcedure(exitAndPark);
        BufferedReader requests = new BufferedReader(new InputStreamReader(realIn, StandardCharsets.UTF_8));
        realOut.println("PYLOG-TOOL-RUNNER-READY");
        realOut.flush();
        String line;
        while ((line = requests.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = Arrays.stream(line.split("\t", -1))
                .map(field -> new String(Base64.getDecoder().decode(field), StandardCharsets.UTF_8))
                .toArray(String[]::new);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = run(fields[0], Arrays.copyOfRange(fields, 2, fields.length),
                           fields[1].getBytes(StandardCharsets.UTF_8), out, err);
            System.setOut(realOut);
            System.setErr(realErr);
            System.setIn(realIn);
            byte[] outBytes = out.toByteArray();
            byte[] errBytes = err.toByteArray();
            realOut.print("PYLOG-TOOL-RESULT " + code + " " + outBytes.length + " " + errBytes.length + "\n");
            realOut.flush();
            realOut.write(outBytes);
            realOut.write(errBytes);
            realOut.flush();
        }
    }

    private static int run(String mainClass, String[] args, byte[] stdin, OutputStream out, OutputStream err)
            throws InterruptedException, ExecutionException {
        PrintStream toolOut = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream toolErr = new PrintStream(err, true, StandardCharsets.UTF_8);
        System.setOut(toolOut);
        System.setErr(toolErr);
        System.setIn(new ByteArrayInputStream(stdin));
        CompletableFuture<Integer> done = new CompletableFuture<>();
        result = done;
        Thread tool = new Thread(() -> {
            try {
                Method main = Class.forName(mainClass).getMethod("main", String[].class);
                // Scala tools print through scala.Console, which keeps the System.out of its
                // first use unless told otherwise for the thread (and the threads it starts)
                scala.Console.withOut(toolOut, () -> scala.Console.withErr(toolErr, () -> {
                    try {
                        return main.invoke(null, (Object) args);
                    } catch (ReflectiveOperationException e) {
                        throw new WrappedFailure(e);
                    }
                }));
                done.complete(0);
            } catch (WrappedFailure e) {
                Throwable cause = e.getCause() instanceof InvocationTargetException
                    ? e.getCause().getCause() : e.getCause();
                cause.printStackTrace(toolErr);
                done.complete(1);
            } catch (ReflectiveOperationException | RuntimeException e) {
                e.printStackTrace(toolErr);
                done.complete(1);
            }
        }, "tool-" + mainClass);
        tool.setDaemon(true);
        tool.start();
        int code = done.get();
        toolOut.flush();
        toolErr.flush();
        return code;
    }

    private ToolRunner() {
    }
}
