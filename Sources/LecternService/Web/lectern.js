// The web remote's entry: index.html loads /lectern.js, and the page itself is
// app/remote.js. The name stays at the root because it is the file the service looks for
// (WebAssets.required) and the one every index.html it ever served loads.
import './app/remote.js';
