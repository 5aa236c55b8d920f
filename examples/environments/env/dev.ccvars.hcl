# The dev environment: cc plan --env dev.
replicas   = 1
log_level  = "debug"
cache_size = "1Gi"
