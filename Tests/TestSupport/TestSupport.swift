/// Test fixtures shared by the test targets: temporary folders, small simulated worlds.
public enum TestSupportModule {}
