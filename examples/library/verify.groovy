// For vlink's own build only (see invoker.properties): what the two runs of the example printed.
def log = new File(basedir, 'build.log').text
assert log =~ /example: 10000 messages of 200 bytes .* every one in order; .*: OK/
assert log.contains('IllegalStateException: the JVM lacks --add-exports java.base/jdk.internal.misc=ALL-UNNAMED')
return true
