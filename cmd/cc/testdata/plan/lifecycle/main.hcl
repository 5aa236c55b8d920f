project = "life"

volume "data" {
  size = "2Gi"
  lifecycle {
    prevent_destroy = true
  }
}

sandbox "dev" {
  image {
    from = "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
  }
  command = ["serve"]
  tags    = ["first"]
  env     = { LOG_LEVEL = "info" }
  volume_mount {
    volume = volume.data
    path   = "/data"
  }
  lifecycle {
    ignore_changes        = [tags, env.LOG_LEVEL]
    create_before_destroy = true
  }
}
