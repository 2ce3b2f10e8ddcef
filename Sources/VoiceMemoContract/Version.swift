/// The release both binaries belong to: `--version` prints it, `make deb` names the package
/// after it, and the newest `<release>` of `data/org.example.VoiceMemo.metainfo.xml` must be
/// it (a test holds them together).
public enum Release {
    public static let version = "0.10.0"
}
