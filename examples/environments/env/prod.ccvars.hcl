# The prod environment: cc plan --env prod.
replicas   = 3
log_level  = "warn"
cache_size = "20Gi"
