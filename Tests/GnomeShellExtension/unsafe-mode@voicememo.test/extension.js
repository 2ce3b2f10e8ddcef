// Test-only (GnomeShellTests copies it into its private prefix; nothing installs it): puts
// the headless shell in unsafe mode, so org.gnome.Shell.Eval reads the panel and
// org.gnome.Shell.Screenshot answers a caller that is not the shell's own tool.
class UnsafeMode {
    enable() {
        global.context.unsafe_mode = true;
    }

    disable() {
        global.context.unsafe_mode = false;
    }
}

function init() {
    return new UnsafeMode();
}
