# A service: its image, a cache volume and the sandbox running it. Inside
# the module, image.base and volume.cache are the module's own.

locals {
  labels = ["PORT"]
}

image "base" {
  from = var.from
  pip { packages = ["requests==2.32.3"] }
}

volume "cache" {
  size = var.cache_size
}

sandbox "web" {
  image   = image.base
  command = var.command
  env = {
    PORT = tostring(var.port)
  }
  resources {
    requests {
      cpu    = "1"
      memory = var.memory
    }
  }
  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
}

output "cache" {
  value       = volume.cache
  description = "The service's cache volume."
}

output "port" {
  value = tostring(var.port)
}
