/// Apple App Site Association and Android assetlinks: model, parser, validator, matcher, generator.
public enum UniversalLinksModule {}
