public import TallySQL

extension SQLiteDatabase {
    /// The server's database file, as `tally serve` and every other command open it.
    ///
    /// Its log is copied back into the file beside the writer each time it has grown by 8,000
    /// pages (32 MB), and starts over at 32,000 (decision 0038): a server writes the same pages
    /// (indexes' last leaves, rollup rows, balances) many times a second, and a copy takes a page
    /// once however often it was written in its interval.
    public static func server(path: String) throws(SQLDatabaseError) -> SQLiteDatabase {
        try SQLiteDatabase(path: path, checkpointPages: 8_000)
    }
}
