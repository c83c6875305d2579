extension Service {
    /// Viewers' page images rendered so far (§24.2): tests and the bench check "once per page and size".
    public var pageImageRenders: Int { room.pageImages.renders }
    /// Bytes of encoded page images kept now (at most `PageImages.cacheBytes`).
    public var pageImageCacheBytes: Int { room.pageImages.cachedBytes }
}
